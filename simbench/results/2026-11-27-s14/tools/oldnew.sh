#!/usr/bin/env bash
# main's tandem.jar (daca97b) against this branch's, default table, deterministic rows: one DepFast row (Raft 3 nodes, a
# follower at CPU 5 %) and one Copilot row (5 nodes, healthy). Identical output = the default model is unchanged.
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for jar in main branch; do
  $J -jar /tmp/perfsim9/tandem-$jar.jar simbench --protocol raft --nodes 3 --clients 16 --slow follower:cpu=5% --measure 2s 2>/dev/null | grep -v WARN > oldnew-raft-cpu5-$jar.txt
  $J -jar /tmp/perfsim9/tandem-$jar.jar simbench --protocol copilot --nodes 5 --clients 16 --measure 2s 2>/dev/null | grep -v WARN > oldnew-copilot-$jar.txt
done
