# Sourced by scripts/site.sh and scripts/verify.sh with ansible-playbook's arguments: settings that
# belong to the site being run rather than to ansible.cfg, which every inventory shares.
#  - Facts are cached per inventory (.cache/facts/<inventory path>), so that one site never reads
#    another's facts; ansible.cfg itself keeps facts in memory for the run only.
#  - The lab's vault id (its password is committed, it protects nothing) is passed only when the
#    inventory is the lab's (inventories/lab, or inventories/lab-spectrum, its Spectrum variant).
#    Every other site brings its own: --vault-id, --ask-vault-pass or AWX.
site_environment() {
  local inventory="inventories/lab/hosts.yml" previous=""
  for argument in "$@"; do
    case "$previous" in -i|--inventory|--inventory-file) inventory="$argument" ;; esac
    case "$argument" in --inventory=*) inventory="${argument#--inventory=}" ;; esac
    previous="$argument"
  done
  local directory
  directory="$(cd "$(dirname "$inventory")" 2>/dev/null && pwd)/$(basename "$inventory")"
  [ -d "$directory" ] || directory="$(dirname "$directory")"
  local key="${directory#"$ROOT"/}"
  export ANSIBLE_CACHE_PLUGIN=jsonfile
  export ANSIBLE_CACHE_PLUGIN_CONNECTION="$ROOT/.cache/facts/${key//\//_}"
  if [ "$directory" = "$ROOT/inventories/lab" ] || [ "$directory" = "$ROOT/inventories/lab-spectrum" ]; then
    export ANSIBLE_VAULT_IDENTITY_LIST="lab@$ROOT/inventories/lab/vault-password.txt${ANSIBLE_VAULT_IDENTITY_LIST:+,$ANSIBLE_VAULT_IDENTITY_LIST}"
  fi
}
