#!/bin/sh
# Vault password client of the example inventory (vault id "example"); kept outside the inventory
# directory, where Ansible would take an executable file for an inventory script:
#   ASCEND_VAULT_PASSWORD=... ansible-playbook -i inventories/example \
#     --vault-id example@inventories/vault-password.sh site.yml
# The password comes from the environment of the run (a CI secret, or an AWX Vault credential with
# vault id "example", which replaces this script), never from a file in the repository.
# The example's own secrets are encrypted with the password "example-only-change-me": a site
# encrypts its own (ansible-vault encrypt_string --vault-id <site>@prompt --name <variable>).
if [ -z "${ASCEND_VAULT_PASSWORD:-}" ]; then
  echo "vault-password.sh: ASCEND_VAULT_PASSWORD is not set (the password of vault id example)" >&2
  exit 1
fi
printf '%s\n' "$ASCEND_VAULT_PASSWORD"
