#!/usr/bin/env bash
# alloc21: compiles CommittedDeliveryBenchmark with JMH's annotation processor against this branch's jars (the class
# calls only methods main has too, so the same classes run against main's jars).
d=/tmp/alloc21-jmhc; rm -rf $d; mkdir -p $d/classes; W=/work/wt-alloc21
/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac -proc:full \
  -processorpath /root/.m2/repository/org/openjdk/jmh/jmh-generator-annprocess/1.37/jmh-generator-annprocess-1.37.jar:/root/.m2/repository/org/openjdk/jmh/jmh-core/1.37/jmh-core-1.37.jar \
  -cp $W/core/target/tandem-core-0.1.0-SNAPSHOT.jar:$W/protocols/target/tandem-protocols-0.1.0-SNAPSHOT.jar:/tmp/alloc21-base/jmh/target/benchmarks.jar \
  -d $d/classes $W/jmh/src/main/java/io/tandem/protocols/raft/CommittedDeliveryBenchmark.java
