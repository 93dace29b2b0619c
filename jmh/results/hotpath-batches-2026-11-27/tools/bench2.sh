#!/bin/bash
/tmp/hp4/measure.sh /tmp/hp4/out64 64 3 3
/tmp/hp4/jmh-ab.sh /tmp/hp4/jmh
