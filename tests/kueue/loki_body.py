"""Writes a Loki query_range answer (formats.md §13, streams) holding the pod logs of the Kueue
scenario, one stream per pod labelled with its namespace, pod and node, as Promtail/Alloy ship
Kubernetes pod logs. Usage: loki_body.py PODS.json LOGDIR > body.json"""
import datetime
import json
import sys

pods = json.load(open(sys.argv[1]))["items"]
streams = []
for pod in pods:
    name = pod["metadata"]["name"]
    values = []
    for line in open(f"{sys.argv[2]}/{name.removeprefix('llm-pretrain-')}.log"):
        stamp, text = line.rstrip("\n").split(" ", 1)
        whole, frac = stamp.rstrip("Z").split(".")
        t = datetime.datetime.fromisoformat(whole).replace(tzinfo=datetime.timezone.utc)
        ns = int(t.timestamp()) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])
        values.append([str(ns), text])
    streams.append({"stream": {"namespace": pod["metadata"]["namespace"], "pod": name,
                               "node": pod["spec"]["nodeName"], "container": "pytorch"},
                    "values": values})
json.dump({"status": "success", "data": {"resultType": "streams", "result": streams,
                                         "stats": {}}}, sys.stdout)
