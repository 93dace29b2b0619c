#!/usr/bin/env bash
# Reads every form of the Clojure suite with Debian's `clojure` (apt-get install clojure): a syntax
# check, no compilation (Jepsen is on Clojars, unreachable here). CI runs it through ClojureSyntaxTest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
exec clojure check-syntax.clj project.clj src test ../workloads
