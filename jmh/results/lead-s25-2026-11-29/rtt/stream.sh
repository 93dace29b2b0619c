#!/usr/bin/env bash
# Lead s25: Stream.java at issue 22's points (n = 2..5 at 8 KiB, n = 2, 3 at 1 KiB), 5 s each after 3 s, one message per
# write and (BATCH=8) eight per write.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
d=$(cd "$(dirname "$0")" && pwd); cd "$d"; javac -d classes Stream.java
for b in 1 8; do
  for p in 2:8192 3:8192 4:8192 5:8192 2:1024 3:1024; do IFS=: read n s <<<"$p"; java -cp classes Stream $n $s 5 20500 $b; done
done
