"""`python -m vault_app`: the same as the `vault-app` command."""

from vault_app import cli

raise SystemExit(cli.main())
