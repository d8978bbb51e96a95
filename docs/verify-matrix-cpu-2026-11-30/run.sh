#!/bin/bash
# CPU half of the record: run from /tmp/rec/cpu
R=/work/wt-verify-matrix
export PYTHONPATH=$R PATH=/tmp/uvtool/bin:$PATH
P=/work/main/.venv/bin/python
t() { local name=$1; shift; local t0=$(date +%s.%N); "$@" > $name.txt 2> $name.err; local rc=$?; echo "$name rc=$rc wall=$(python3 -c "print(round($(date +%s.%N)-$t0,1))") s" >> times.txt; }
t matrix $P -m privlint verify $R/tests/fixtures/verify/matrix_cases.py --call 'seed(device_type, world_size)' --call 'with_backend_override(device_type, world_size)' --call 'transposed(device_type, world_size)' --torch 2.4.1 --torch 2.9.1 --torch 2.13.0 --nproc 4 --timeout 150
