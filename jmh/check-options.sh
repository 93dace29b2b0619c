#!/usr/bin/env bash
# Checks a benchmark's command line against the picocli @Option fields of its Java source, before any build:
#   jmh/check-options.sh SCRIPT-NAME SOURCE.java ARGS...
# Exit 0 if every argument is a declared option (with its value when it takes one; an enum value among the enum's
# constants, a number where the field is numeric), else exit 2 with one clear line. It reads the source, not the jar,
# so it needs no build and never lags behind an edit; picocli still checks everything again when the program starts.
set -euo pipefail
name="$1"
src="$2"
shift 2
[[ -f "$src" ]] || exit 0 # no source here (an unpacked jar only): picocli checks at start

# One line per option field: "<names separated by |> <type>", e.g. "--measure|--duration Integer".
table="$(awk '
  /@Option\(/ {
    line = $0
    if (match(line, /names = \{[^}]*\}/) || match(line, /names = "[^"]*"/)) {
      names = substr(line, RSTART, RLENGTH)
      gsub(/names = |[{}" ]/, "", names); gsub(/,/, "|", names)
      pending = 1
    }
  }
  pending && /;[[:space:]]*$/ && !/@Option\(/ {
    decl = $0
    sub(/=.*/, "", decl); gsub(/^[[:space:]]+|[[:space:]]+$/, "", decl)
    n = split(decl, parts, /[[:space:]]+/)
    type = parts[n - 1]
    print names, type
    pending = 0
  }
' "$src")"

usage="see $name --help"
fail() { echo "$name: $1 ($usage)" >&2; exit 2; }

lookup() { # $1: an option name; prints its type, or nothing
  local names type n
  while read -r names type; do
    IFS='|' read -r -a list <<<"$names"
    for n in "${list[@]}"; do [[ "$n" == "$1" ]] && { echo "$type"; return 0; }; done
  done <<<"$table"
  return 0
}

enum_constants() { # $1: an enum's simple name; its constants declared in the source, comma-separated (none if not an enum there)
  awk -v want="$1" '
    !on && $0 ~ ("enum " want "[[:space:]]*[{]") { on = 1; sub(".*enum " want "[[:space:]]*[{]", "") }
    on {
      for (i = 1; i <= length($0); i++) {
        c = substr($0, i, 1)
        if (c == "(") depth++
        else if (c == ")") depth--
        else if (depth == 0 && (c == ";" || c == "}")) { print out; exit }
        else if (depth == 0 && c == ",") { out = out "," }
        else if (depth == 0 && c ~ /[A-Za-z0-9_]/) { out = out c }
      }
    }
  ' "$src"
}

check_value() { # $1 option, $2 type, $3 value
  case "$2" in
    int|Integer|long|Long) [[ "$3" =~ ^-?[0-9]+$ ]] || fail "$1 takes a whole number, not '$3'" ;;
    double|Double|float|Float) [[ "$3" =~ ^-?[0-9]+([.][0-9]+)?$ ]] || fail "$1 takes a number, not '$3'" ;;
    *)
      # An enum declared in the same source: the value must be one of its constants.
      local constants
      constants="$(enum_constants "$2")"
      if [[ -n "$constants" ]] && [[ ",$constants," != *",$3,"* ]]; then
        fail "$1 takes one of ${constants//,/, }, not '$3'"
      fi ;;
  esac
}

while (($#)); do
  arg="$1"
  shift
  case "$arg" in
    -h|--help|-V|--version) ;;
    --*=*)
      opt="${arg%%=*}"
      type="$(lookup "$opt")"
      [[ -n "$type" ]] || fail "unknown option $opt"
      [[ "$type" == boolean || "$type" == Boolean ]] || check_value "$opt" "$type" "${arg#*=}" ;;
    -*)
      type="$(lookup "$arg")"
      [[ -n "$type" ]] || fail "unknown option $arg"
      if [[ "$type" != boolean && "$type" != Boolean ]]; then
        (($#)) || fail "$arg needs a value"
        check_value "$arg" "$type" "$1"
        shift
      fi ;;
    *) fail "unexpected argument '$arg' (every option starts with --)" ;;
  esac
done
