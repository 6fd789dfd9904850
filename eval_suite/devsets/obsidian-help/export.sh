#!/usr/bin/env bash
# Export the English Obsidian Help vault (github.com/obsidianmd/obsidian-help) at a pinned
# commit: every *.md under en/, its path kept without the en/ prefix. The repository carries
# no licence, so the vault is not kept here: export it to a folder outside the repository
# and put questions.jsonl beside it (the layout `commonplace eval search --datasets` reads):
#
#   ./export.sh /tmp/obsidian-help/vault MIRROR && cp questions.jsonl /tmp/obsidian-help/
#
# Usage: export.sh DEST MIRROR   (MIRROR: a git clone of obsidianmd/obsidian-help)
set -euo pipefail

PINNED=fa179e91e86eaff5859226cc045c81000d64e3cd
if [ $# -ne 2 ]; then
  echo "usage: $0 DEST MIRROR" >&2
  exit 2
fi
DEST=$1
REPO=$2
if ! git -C "$REPO" cat-file -e "${PINNED}^{commit}" 2>/dev/null; then
  echo "error: $REPO does not contain the pinned commit $PINNED;" >&2
  echo "       clone https://github.com/obsidianmd/obsidian-help and pass its path." >&2
  exit 1
fi
mkdir -p "$DEST"
n=0
while IFS= read -r path; do
  out="$DEST/${path#en/}"
  mkdir -p "$(dirname "$out")"
  git -C "$REPO" show "${PINNED}:${path}" > "$out"
  n=$((n + 1))
done < <(git -C "$REPO" ls-tree -r --name-only "$PINNED" -- en | grep '\.md$')
echo "exported $n notes to $DEST"
