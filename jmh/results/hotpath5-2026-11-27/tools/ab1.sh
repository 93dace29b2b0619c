#!/bin/bash
# A/B at 64 clients, fsync off (3 interleaved rounds), then the JMH A/B if its jar is ready. Bails out at once if the new jars are not ready.
[[ -f /tmp/hp5-new/READY ]] || { echo "new jars not ready; giving the turn back"; exit 3; }
/tmp/hp5/ab.sh /tmp/hp5/ab-64c-nofsync 64 64B-nofsync 1 3
/tmp/hp5/jmh-ab.sh /tmp/hp5/jmh
