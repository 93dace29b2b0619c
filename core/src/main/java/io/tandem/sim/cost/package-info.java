/**
 * The simulator's cost model (issue 18, DESIGN §8.5): CPU cores serving each node's I/O, loop and
 * execution work as queues, a disk with a measured flush latency and a bandwidth, links with a
 * measured latency and a bandwidth, all charged from a {@link io.tandem.sim.cost.CostTable}
 * calibrated on a real machine, and fail-slow faults as changes of these parameters at run time
 * ({@link io.tandem.sim.cost.Slowdown}). Driven by {@link io.tandem.sim.SimBench}.
 */
package io.tandem.sim.cost;
