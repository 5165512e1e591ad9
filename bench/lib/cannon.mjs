// One autocannon run in a process of its own, so that the benchmark can pin the load generator to
// a core (`taskset -c 1 node bench/lib/cannon.mjs '<options as JSON>'`). Prints the figures the
// benchmarks read as one line of JSON.
import autocannon from 'autocannon';

const result = await autocannon(JSON.parse(process.argv[2]));
process.stdout.write(
  `${JSON.stringify({
    total: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    bytes: result.throughput.total,
    p99: result.latency.p99,
  })}\n`,
);
