#!/usr/bin/env bash
# The shortest correct goatarena bot: bash alone, no jq. It always takes the first action.
# The referee writes every message with its "type" field first and without spaces
# (docs/protocol.md), so the start of a line tells its type whatever else it holds;
# other types and EOF need nothing.
while IFS= read -r line; do
  case $line in
    '{"type":"hello"'*) echo '{"type":"hello","name":"first-sh"}' ;;
    '{"type":"decide"'*) echo '{"type":"action","index":0}' ;;
    '{"type":"quit"'*) exit 0 ;;
  esac
done
