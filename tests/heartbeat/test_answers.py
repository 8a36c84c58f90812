"""A model's answer read tolerantly: every shape models write, and a precise error when
nothing in it is usable."""

from __future__ import annotations

import json

import pytest

from vault_app.heartbeat import answers

MARIA = {
    "fact": "Maria hates cilantro",
    "category": "preference",
    "entity": "Maria",
    "relatedEntities": [],
}
PATEL = {
    "fact": "Dr. Patel is Leo's doctor",
    "category": "relationship",
    "entity": "Dr. Patel",
    "relatedEntities": ["Leo"],
}
PLAIN = json.dumps({"facts": [MARIA, PATEL]})


@pytest.mark.parametrize(
    "content",
    [
        PLAIN,
        f"```json\n{PLAIN}\n```",
        f"```\n{PLAIN}\n```",
        f"Sure! Here are the facts:\n{PLAIN}\nLet me know if you need more.",
        json.dumps([MARIA, PATEL]),
        f"Facts [from the entry]:\n{json.dumps([MARIA, PATEL], indent=2)}",
        f"<think>The user wants {{facts}}. Maria [dislikes] it.</think>\n{PLAIN}",
        PLAIN.replace("]}", ",]}").replace("[]}", "[],}"),  # trailing commas
        json.dumps({"result": {"facts": [MARIA, PATEL]}}),
        f'The shape is {{"fact": ...}} and {{"note": 1}}; here: {PLAIN} [1] {{"facts": []}}',
    ],
    ids=[
        "plain",
        "fenced",
        "bare-fence",
        "prose",
        "list",
        "list-in-prose",
        "think",
        "commas",
        "nested",
        "examples-first",
    ],
)
def test_parse_facts_reads_what_models_write(content: str) -> None:
    assert answers.parse_facts(content) == [MARIA, PATEL]


def test_parse_facts_takes_either_key_spelling_and_maps_categories() -> None:
    content = json.dumps(
        {
            "Facts": [
                {
                    "fact": "Tom works from home on Fridays",
                    "category": "Status",
                    "related_entities": "Acme, Tom",
                },
                {
                    "Fact": "The lease ends on 2027-03-31",
                    "category": "events",
                    "Entity": "the flat",
                },
                {
                    "fact": "Ana is Tom's sister",
                    "category": "relationships",
                    "relatedEntities": ["Tom", "", "tom"],
                },
                {
                    "fact": "The spare key is under the blue pot",
                    "category": "trivia",
                    "entity": "null",
                },
                {"fact": "  ", "category": "status"},
                {"fact": None},
                {"fact": "A sure thing", "confidence": 0.5},
            ]
        }
    )
    assert answers.parse_facts(content) == [
        {"fact": "Tom works from home on Fridays", "category": "status", "entity": None,
         "relatedEntities": ["Acme", "Tom"]},
        {"fact": "The lease ends on 2027-03-31", "category": "milestone", "entity": "the flat",
         "relatedEntities": []},
        {"fact": "Ana is Tom's sister", "category": "relationship", "entity": None,
         "relatedEntities": ["Tom"]},
        {"fact": "The spare key is under the blue pot", "category": "context", "entity": None,
         "relatedEntities": []},
        {"fact": "A sure thing", "category": "context", "entity": None, "relatedEntities": [],
         "confidence": 0.5},
    ]  # fmt: skip


def test_parse_facts_keeps_unicode_and_joins_lines() -> None:
    content = '{"facts": [{"fact": "Zoë loves crème brûlée\\n🎂 on 2026-12-01", "entity": "Zoë"}]}'
    [fact] = answers.parse_facts(content)
    assert fact["fact"] == "Zoë loves crème brûlée 🎂 on 2026-12-01"
    assert fact["entity"] == "Zoë"


@pytest.mark.parametrize(
    "content",
    [
        '{"facts": []}',
        "[]",
        '{"facts": null}',
        '{"facts": [{"fact": ""}]}',
        '```json\n{"facts": []}\n```',
    ],
)
def test_parse_facts_nothing_durable_is_no_facts(content: str) -> None:
    assert answers.parse_facts(content) == []


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("", "the answer is empty"),
        ("<think>hmm</think>  ", "the answer is empty"),
        ("I could not find any facts.", "holds no JSON object or list (it starts 'I could not"),
        ('{"facts": [{"fact": "Maria dislikes', "JSON is malformed or cut off"),
        ('{"answer": "Maria dislikes cilantro"}', "has no \"facts\" list (its keys: 'answer')"),
        ('{"facts": "Maria dislikes cilantro"}', '"facts" is a string, not a list'),
        ('{"facts": [1, 2]}', "none of the answer's 2 items is a fact (a number)"),
        ('"just a string"', "is a string, not an object"),
    ],
)
def test_parse_facts_says_what_was_there_when_nothing_is_usable(content: str, reason: str) -> None:
    with pytest.raises(answers.LlmError) as caught:
        answers.parse_facts(content)
    assert reason in str(caught.value)
