package io.tandem.sim;

/**
 * Implemented by engines that can describe their state in one line ("view=4 primary status=NORMAL
 * commit=17 last=18"); a failing run prints one such line per node, in the manner of TigerBeetle's
 * VOPR status lines, so the state at the failure can be read at a glance.
 */
public interface Inspectable {
    String inspect();
}
