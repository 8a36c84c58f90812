"""The Qt-free heart of vault-app: models, layout, safe storage, decay, synthesis, doctor.

Import modules, not names: `from vault_app.core import vault` then `vault.Vault(path)`.
"""
