package io.tandem.codec;

/** Kryo registration id ranges, one per owner, so registrations never collide. */
public final class CodecIds {
    /** Kryo's own defaults (primitives, String) use ids below this. */
    public static final int CORE_FIRST = 100;
    public static final int CORE_LAST = 199;
    /** Tests and examples. */
    public static final int TEST_FIRST = 200;
    public static final int TEST_LAST = 299;
    public static final int RAFT_FIRST = 1000;
    public static final int MULTIPAXOS_FIRST = 1200;
    public static final int COPILOT_FIRST = 1400;
    public static final int DERECHO_FIRST = 1600;
    public static final int PSMR_FIRST = 1800;
    public static final int TOY_FIRST = 1900;
    public static final int KVSTORE_FIRST = 2000;

    private CodecIds() {}
}
