"""vault-app: see, search and curate the PARA memory vaults of AI agents."""

__version__ = "0.1.0"
