#!/usr/bin/env bash
# Lists test classes by surefire time (seconds): slowest.sh <checkout root> [N]
root=$1; n=${2:-15}
for f in $(find "$root" -path '*/target/surefire-reports/TEST-*.xml' -not -path '*/node_modules/*'); do
  mod=$(echo "$f" | sed -E "s#^$root/##; s#/target/surefire-reports/.*##")
  head -c 2000 "$f" | tr '\n' ' ' | grep -o '<testsuite [^>]*>' | head -1 | sed -E 's/.* name="([^"]*)".* time="([^"]*)".*/\2 \1/; s/.*time="([^"]*)".* name="([^"]*)".*/\1 \2/' | sed "s#\$# $mod#"
done | sort -g -r | head -n "$n"
