#!/usr/bin/env bash
# The npm test tools, at the versions their lock files pin: the MCP SDK
# (tests/mcp), ajv (tests/tools/ajv), kubectl and helm (tests/tools/helm, whose
# postinstall copies both binaries to its bin/). Needs node, npm and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
while IFS= read -r lock; do
  dir=$(dirname "$lock")
  echo "npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
done < <(find tests -name package-lock.json -not -path '*/node_modules/*' | sort)
