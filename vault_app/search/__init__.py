"""Search over a vault: our tokenizer, an exact incremental BM25 index, semantic and hybrid."""
