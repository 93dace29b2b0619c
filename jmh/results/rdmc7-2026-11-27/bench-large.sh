#!/bin/bash
# Runs LargeMessageBenchmark with the given arguments; records the load before and after. Run through /work/tools/bench.
cd /work/wt-rdmc7
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
echo "# load at start: $(uptime)"
java -Xmx6g --enable-native-access=ALL-UNNAMED -cp jmh/target/benchmarks.jar io.tandem.bench.vsync.LargeMessageBenchmark "$@" 2>&1 | grep -v "INFO\|WARN\|^\s*at "
echo "# load at end: $(uptime)"
