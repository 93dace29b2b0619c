#!/usr/bin/env bash
# Builds the CLI jar (and the protocols test-jar) of the tree in $1 with this helper's Maven repo.
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
cd "$1"
./mvnw -o -q -B -Dmaven.repo.local=/tmp/m2-copilot11 -Dmaven.repo.local.tail=/root/.m2/repository -pl kvstore -am package -DskipTests
ls -la kvstore/target/tandem.jar
