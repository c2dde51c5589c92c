"""A small instrumented application: agent traces exported by the OpenTelemetry SDK's OTLP/HTTP exporter.

``python app.py ENDPOINT N IDS_FILE [--drop-after D] [--json] [--gzip] [--seed S]``: N traces, each an
agent span (input, output) with a tool span and an LLM span under it. The answer is empty with
probability 0.05, or 0.6 from trace D on (a quality drop). The trace ids are written to IDS_FILE in order.
With ``--hold-at K --hold-file F`` it stops after K traces until F exists.
"""

import argparse
import os
import random
import time

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

parser = argparse.ArgumentParser()
parser.add_argument("endpoint")
parser.add_argument("n", type=int)
parser.add_argument("ids")
parser.add_argument("--drop-after", type=int, default=None)
parser.add_argument("--gzip", action="store_true")
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--pause", type=float, default=0.002)
parser.add_argument("--thumbs-down-every", type=int, default=0)
parser.add_argument("--hold-at", type=int, default=None, help="after this many traces, wait for --hold-file")
parser.add_argument("--hold-file", default=None)
args = parser.parse_args()

exporter = OTLPSpanExporter(endpoint=args.endpoint, timeout=60,
                            compression=Compression.Gzip if args.gzip else Compression.NoCompression)
provider = TracerProvider(resource=Resource.create({"service.name": "shop-assistant"}))
provider.add_span_processor(BatchSpanProcessor(exporter, max_queue_size=100_000, max_export_batch_size=64,
                                               schedule_delay_millis=20))
tracer = provider.get_tracer("shop")
rng = random.Random(args.seed)
with open(args.ids, "w") as ids:
    for i in range(args.n):
        if i == args.hold_at:
            ids.flush()
            while not os.path.exists(args.hold_file):
                time.sleep(0.01)
        empty = 0.6 if args.drop_after is not None and i >= args.drop_after else 0.05
        answer = "" if rng.random() < empty else f"Order {i} ships on Monday."
        feedback = "thumbs_down" if args.thumbs_down_every and i % args.thumbs_down_every == 0 else "none"
        with tracer.start_as_current_span("agent", attributes={
                "openinference.span.kind": "AGENT", "input.value": f"When does order {i} ship?",
                "output.value": answer, "user.feedback": feedback}) as root:
            with tracer.start_as_current_span("lookup", attributes={
                    "openinference.span.kind": "TOOL", "tool.name": "lookup_order",
                    "input.value": f'{{"order": {i}}}', "output.value": '{"eta": "Monday"}'}):
                pass
            with tracer.start_as_current_span("llm", attributes={
                    "openinference.span.kind": "LLM", "llm.model_name": "m", "output.value": answer}):
                pass
            ids.write(format(root.get_span_context().trace_id, "032x") + "\n")
        time.sleep(args.pause)
provider.shutdown()
