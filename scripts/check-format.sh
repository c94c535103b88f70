#!/usr/bin/env bash
# Checks that every C and CUDA file git tracks is formatted as .clang-format
# says (clang-format 14, Debian 12). Lists the files that are not and exits 1;
# `clang-format -i FILE` formats one.
set -u
cd "$(dirname "$0")/.."
# Written by programs, byte for byte as their tests check (bpc.test_bpc_tables
# regenerates tables_builtin.c): not formatted.
generated=(bpc/tables_builtin.c)
command -v clang-format > /dev/null || { echo "check-format: clang-format is not installed" >&2; exit 2; }
bad=0
while IFS= read -r f; do
    [[ " ${generated[*]} " == *" $f "* ]] && continue
    if ! clang-format --dry-run --Werror "$f" > /dev/null 2>&1; then
        echo "not formatted: $f"
        bad=$((bad + 1))
    fi
done < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cpp')
if [ $bad -gt 0 ]; then
    echo "check-format: $bad files differ from .clang-format (clang-format -i FILE)" >&2
    exit 1
fi
echo "check-format: $(($(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cpp' | wc -l) - ${#generated[@]})) files formatted (${#generated[@]} generated left as written)"
