#!/bin/bash
# usage: cpureq.sh PID PORT N
pid=$1; port=$2; n=$3
ticks() { awk '{print $14+$15}' /proc/$pid/stat; }
a=$(ticks)
cd /work/main && npx autocannon -c 10 -a $n -m POST -H content-type=application/json -b "$(cat /work/shared/bench/order-flow/order.json)" http://127.0.0.1:$port/order-flow/orders > /tmp/ac.out 2>&1
b=$(ticks)
echo "port $port cpu us/req: $(( (b-a)*10000000/n/1000 ))  $(grep -E 'requests in|2xx' /tmp/ac.out | tr '\n' ' ')"
