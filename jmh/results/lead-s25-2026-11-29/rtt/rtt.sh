#!/usr/bin/env bash
# Lead s25: loopback TCP round trip between two JVMs (PingPong.java), 10 s measured after 5 s warm-up, alone and with
# two other JVMs spinning (two busy threads: roughly the other two replicas' share of a 2-vCPU machine in a trial).
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64; export PATH=$JAVA_HOME/bin:$PATH
d=$(cd "$(dirname "$0")" && pwd); cd "$d"
javac -d classes PingPong.java
one() { java -cp classes PingPong server $1 & sleep 1; java -cp classes PingPong client $1 10; wait; }
echo "alone: $(one 20400)"
cat > /tmp/lead25-spin.java <<'J'
public class Spin { public static void main(String[] a) { long x = 0; while (true) { x += System.nanoTime() & 1; if (x == -1) System.out.println(x); } } }
J
java /tmp/lead25-spin.java & s1=$!; java /tmp/lead25-spin.java & s2=$!; sleep 2
echo "with 2 spinning JVMs: $(one 20401)"
kill $s1 $s2
