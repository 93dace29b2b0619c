package io.tandem.kv.net;

import io.netty.buffer.ByteBuf;
import io.tandem.engine.NodeId;
import io.tandem.engine.ReadPolicy;
import io.tandem.transport.FaultPlan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The client protocol's frames: what {@link io.tandem.kv.client.TandemKvClient} and the server's
 * client endpoint exchange over TCP. Every frame is self-describing and checked on decode (lengths
 * against the bytes present, no trailing bytes, known codes only), so a confused or hostile peer
 * causes a {@link WireFormatException}, never another exception or a large allocation.
 *
 * <pre>
 * frame    = length:u32 body                 length = body bytes, at most the frame limit
 * body     = version:u8(2) type:u8 requestId:i64 fields
 * requests
 *   COMMAND           (1)  clientId:i64 sequence:i64 command:bytes
 *   QUERY             (2)  policy:u8 [minIndex:i64 if STALE] query:bytes     policy: 1 LINEARIZABLE, 2 LEASE, 3 STALE
 *   STATUS            (16)
 *   SET_FAULT_PLAN    (17) plan
 *   SET_CLOCK_OFFSET  (18) offsetNanos:i64
 *   CHANGE_MEMBERSHIP (19) change:u8 node:string
 *   AUTHENTICATE      (20) token:string
 * responses
 *   RESULT (1)  result:bytes                 a KvCodec result
 *   STATUS (2)  status
 *   DONE   (3)
 *   ERROR  (4)  code:u16 message:string flags:u8 [leader:string] [leaderClientAddress:string]
 * plan   = links:u16 (from:string to:string)* delay:i64 jitter:i64 loss:f64 duplicate:f64 reorder:f64
 *          slow:u16 (node:string nanos:i64)*
 * status = node cluster protocol role:string flags:u8 [leader:string] [leaderClientAddress:string]
 *          epoch:i64 commit:i64 applied:i64 voters:u16 (id:string)* learners:u16 (id:string)*
 *          lag:u16 (id:string behind:i64)* pid:i64 uptimeMillis:i64 faultInjection:u8
 *          members:u16 (id peer client:string)*
 * bytes  = length:u32 byte*                  string = length:u16 UTF-8
 * </pre>
 *
 * Integers are big-endian. KV payloads are opaque here: {@link io.tandem.kv.KvCodec} validates them.
 */
public final class ClientWire {
    public static final int VERSION = 2;
    /** Largest frame body by default: room for a maximal value or scan page with headroom. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 8 << 20;
    /** version, type and request id. */
    static final int HEADER_BYTES = 10;

    static final int COMMAND = 1, QUERY = 2, STATUS = 16, SET_FAULT_PLAN = 17, SET_CLOCK_OFFSET = 18, CHANGE_MEMBERSHIP = 19, AUTHENTICATE = 20;
    static final int RESULT = 1, STATUS_REPORT = 2, DONE = 3, ERROR = 4;
    private static final int LINEARIZABLE = 1, LEASE = 2, STALE = 3;
    private static final int FIRST_PRESENT = 1, SECOND_PRESENT = 2;
    private static final int MAX_STRING_BYTES = 0xFFFF;

    private ClientWire() {}

    // ---- writing: each frame is written with its length prefix ----

    public static void writeRequest(Request request, ByteBuf out) {
        int start = beginFrame(out);
        switch (request) {
            case Request.Command c -> {
                header(out, COMMAND, c.requestId());
                out.writeLong(c.clientId()).writeLong(c.sequence());
                writeBytes(out, c.command());
            }
            case Request.Query q -> {
                header(out, QUERY, q.requestId());
                switch (q.policy()) {
                    case ReadPolicy.Linearizable l -> out.writeByte(LINEARIZABLE);
                    case ReadPolicy.Lease l -> out.writeByte(LEASE);
                    case ReadPolicy.Stale s -> out.writeByte(STALE).writeLong(s.minIndex());
                }
                writeBytes(out, q.query());
            }
            case Request.Status s -> header(out, STATUS, s.requestId());
            case Request.SetFaultPlan p -> {
                header(out, SET_FAULT_PLAN, p.requestId());
                writePlan(out, p.plan());
            }
            case Request.SetClockOffset o -> {
                header(out, SET_CLOCK_OFFSET, o.requestId());
                out.writeLong(o.offsetNanos());
            }
            case Request.ChangeMembership m -> {
                header(out, CHANGE_MEMBERSHIP, m.requestId());
                out.writeByte(m.change().code());
                writeString(out, m.node());
            }
            case Request.Authenticate a -> {
                header(out, AUTHENTICATE, a.requestId());
                writeString(out, a.token());
            }
        }
        endFrame(out, start);
    }

    public static void writeResponse(Response response, ByteBuf out) {
        int start = beginFrame(out);
        switch (response) {
            case Response.Result r -> {
                header(out, RESULT, r.requestId());
                writeBytes(out, r.result());
            }
            case Response.StatusReport s -> {
                header(out, STATUS_REPORT, s.requestId());
                writeStatus(out, s.status());
            }
            case Response.Done d -> header(out, DONE, d.requestId());
            case Response.Error e -> {
                header(out, ERROR, e.requestId());
                out.writeShort(e.code().code());
                writeString(out, truncate(e.message()));
                out.writeByte((e.leader() != null ? FIRST_PRESENT : 0) | (e.leaderClientAddress() != null ? SECOND_PRESENT : 0));
                if (e.leader() != null) writeString(out, e.leader());
                if (e.leaderClientAddress() != null) writeString(out, e.leaderClientAddress());
            }
        }
        endFrame(out, start);
    }

    /**
     * Writes the frame of {@code Response.Result(requestId, codec.encode(result))} without encoding the result into an
     * array first (issue 25): the same bytes as {@link #writeResponse} of that response.
     */
    public static void writeResult(long requestId, io.tandem.kv.KvResult result, ByteBuf out) {
        int start = beginFrame(out);
        header(out, RESULT, requestId);
        int lengthAt = out.writerIndex();
        out.writeInt(0);
        io.tandem.kv.KvCodec.writeResult(result, out);
        out.setInt(lengthAt, out.writerIndex() - lengthAt - 4);
        endFrame(out, start);
    }

    /** An upper bound of {@link #writeResult}'s frame for the common results, for sizing buffers. */
    public static int resultSizeHint(io.tandem.kv.KvResult result) {
        return 4 + HEADER_BYTES + 4 + io.tandem.kv.KvCodec.resultSizeHint(result);
    }

    /** An upper bound of the encoded size of a request, for sizing buffers. */
    public static int sizeHint(Request request) {
        return 4 + HEADER_BYTES + 32 + switch (request) {
            case Request.Command c -> c.command().length;
            case Request.Query q -> q.query().length;
            default -> 256;
        };
    }

    /** An upper bound of the encoded size of a response, for sizing buffers. */
    public static int sizeHint(Response response) {
        return 4 + HEADER_BYTES + 16 + switch (response) {
            case Response.Result r -> r.result().length;
            case Response.Error e -> 3 * e.message().length() + 512;
            default -> 1024;
        };
    }

    // ---- reading: the body of one frame, without its length prefix ----

    public static Request readRequest(ByteBuf body) {
        return readRequest(body, body.writerIndex());
    }

    /**
     * {@link #readRequest(ByteBuf)} of the frame body in {@code buf} from its reader index to {@code end} (hot24: read in
     * place from a decoder's cumulation, {@link ClientFrames}); reads nothing at or past {@code end}.
     */
    public static Request readRequest(ByteBuf buf, int end) {
        In in = new In(buf, end);
        int type = in.header();
        long id = in.i64("request id");
        Request r = switch (type) {
            case COMMAND -> new Request.Command(id, in.i64("client id"), in.i64("sequence"), in.bytes("command"));
            case QUERY -> {
                int policy = in.u8("read policy");
                ReadPolicy p = switch (policy) {
                    case LINEARIZABLE -> ReadPolicy.LINEARIZABLE;
                    case LEASE -> ReadPolicy.LEASE;
                    case STALE -> {
                        long min = in.i64("min index");
                        if (min < 0) throw new WireFormatException("negative min index " + min);
                        yield ReadPolicy.stale(min);
                    }
                    default -> throw new WireFormatException("unknown read policy " + policy);
                };
                yield new Request.Query(id, p, in.bytes("query"));
            }
            case STATUS -> new Request.Status(id);
            case SET_FAULT_PLAN -> new Request.SetFaultPlan(id, readPlan(in));
            case SET_CLOCK_OFFSET -> new Request.SetClockOffset(id, in.i64("clock offset"));
            case CHANGE_MEMBERSHIP -> new Request.ChangeMembership(id, MembershipChange.ofCode(in.u8("change")), in.string("node"));
            case AUTHENTICATE -> new Request.Authenticate(id, in.string("token"));
            default -> throw new WireFormatException("unknown request type " + type);
        };
        in.end();
        return r;
    }

    public static Response readResponse(ByteBuf body) {
        return readResponse(body, body.writerIndex());
    }

    /** {@link #readResponse(ByteBuf)} of the frame body in {@code buf} from its reader index to {@code end}, as {@link #readRequest(ByteBuf, int)}. */
    public static Response readResponse(ByteBuf buf, int end) {
        In in = new In(buf, end);
        int type = in.header();
        long id = in.i64("request id");
        Response r = switch (type) {
            case RESULT -> new Response.Result(id, in.bytes("result"));
            case STATUS_REPORT -> new Response.StatusReport(id, readStatus(in));
            case DONE -> new Response.Done(id);
            case ERROR -> {
                ErrorCode code = ErrorCode.ofCode(in.u16("error code"));
                String message = in.string("message");
                int flags = in.flags("error flags");
                String leader = (flags & FIRST_PRESENT) != 0 ? in.string("leader") : null;
                String address = (flags & SECOND_PRESENT) != 0 ? in.string("leader client address") : null;
                yield new Response.Error(id, code, message, leader, address);
            }
            default -> throw new WireFormatException("unknown response type " + type);
        };
        in.end();
        return r;
    }

    /** The request id of a body at least {@link #HEADER_BYTES} long, else 0: lets a server answer a frame it cannot decode. */
    public static long peekRequestId(ByteBuf body) {
        return peekRequestId(body, body.readerIndex(), body.writerIndex());
    }

    /** {@link #peekRequestId(ByteBuf)} of the body in {@code buf[from, end)}; moves no index. */
    public static long peekRequestId(ByteBuf buf, int from, int end) {
        return end - from >= HEADER_BYTES ? buf.getLong(from + 2) : 0;
    }

    // ---- parts ----

    private static void writePlan(ByteBuf out, FaultPlan plan) {
        out.writeShort(count(plan.blockedLinks().size(), "blocked links"));
        for (FaultPlan.Link l : sorted(plan.blockedLinks())) {
            writeString(out, l.from().value());
            writeString(out, l.to().value());
        }
        out.writeLong(plan.delayNanos()).writeLong(plan.jitterNanos());
        out.writeDouble(plan.lossRate()).writeDouble(plan.duplicateRate()).writeDouble(plan.reorderRate());
        out.writeShort(count(plan.slowNodes().size(), "slow nodes"));
        plan.slowNodes().entrySet().stream().sorted(Map.Entry.comparingByKey(java.util.Comparator.comparing(NodeId::value)))
                .forEach(e -> {
                    writeString(out, e.getKey().value());
                    out.writeLong(e.getValue());
                });
    }

    private static List<FaultPlan.Link> sorted(Set<FaultPlan.Link> links) {
        List<FaultPlan.Link> list = new ArrayList<>(links);
        list.sort(java.util.Comparator.comparing((FaultPlan.Link l) -> l.from().value()).thenComparing(l -> l.to().value()));
        return list;
    }

    private static FaultPlan readPlan(In in) {
        int links = in.u16("blocked links");
        Set<FaultPlan.Link> blocked = new HashSet<>();
        for (int i = 0; i < links; i++) blocked.add(new FaultPlan.Link(in.nodeId("link source"), in.nodeId("link target")));
        long delay = in.i64("delay"), jitter = in.i64("jitter");
        double loss = in.f64("loss rate"), dup = in.f64("duplicate rate"), reorder = in.f64("reorder rate");
        int slow = in.u16("slow nodes");
        Map<NodeId, Long> slowNodes = new HashMap<>();
        for (int i = 0; i < slow; i++) slowNodes.put(in.nodeId("slow node"), in.i64("slow-node delay"));
        try {
            return new FaultPlan(blocked, delay, jitter, loss, dup, reorder, slowNodes);
        } catch (IllegalArgumentException e) {
            throw new WireFormatException("invalid fault plan: " + e.getMessage());
        }
    }

    private static void writeStatus(ByteBuf out, NodeStatus s) {
        writeString(out, s.node());
        writeString(out, s.cluster());
        writeString(out, s.protocol());
        writeString(out, s.role());
        out.writeByte((s.leader() != null ? FIRST_PRESENT : 0) | (s.leaderClientAddress() != null ? SECOND_PRESENT : 0));
        if (s.leader() != null) writeString(out, s.leader());
        if (s.leaderClientAddress() != null) writeString(out, s.leaderClientAddress());
        out.writeLong(s.epoch()).writeLong(s.commitIndex()).writeLong(s.appliedIndex());
        out.writeShort(count(s.voters().size(), "voters"));
        for (String v : s.voters()) writeString(out, v);
        out.writeShort(count(s.learners().size(), "learners"));
        for (String l : s.learners()) writeString(out, l);
        out.writeShort(count(s.lag().size(), "lag entries"));
        for (var e : s.lag().entrySet()) {
            writeString(out, e.getKey());
            out.writeLong(e.getValue());
        }
        out.writeLong(s.pid()).writeLong(s.uptimeMillis());
        out.writeByte(s.faultInjection() ? 1 : 0);
        out.writeShort(count(s.members().size(), "members"));
        for (NodeStatus.Member m : s.members()) {
            writeString(out, m.id());
            writeString(out, m.peerAddress());
            writeString(out, m.clientAddress());
        }
        // A sharded store's map (issue 23); no shard for an unsharded store.
        out.writeLong(s.shardView());
        out.writeShort(count(s.shards().size(), "shards"));
        for (List<String> shard : s.shards()) {
            out.writeShort(count(shard.size(), "shard members"));
            for (String m : shard) writeString(out, m);
        }
    }

    private static NodeStatus readStatus(In in) {
        String node = in.string("node"), cluster = in.string("cluster"), protocol = in.string("protocol"), role = in.string("role");
        int flags = in.flags("status flags");
        String leader = (flags & FIRST_PRESENT) != 0 ? in.string("leader") : null;
        String address = (flags & SECOND_PRESENT) != 0 ? in.string("leader client address") : null;
        long epoch = in.i64("epoch"), commit = in.i64("commit index"), applied = in.i64("applied index");
        int nv = in.u16("voters");
        List<String> voters = new ArrayList<>(nv);
        for (int i = 0; i < nv; i++) voters.add(in.string("voter"));
        int nl = in.u16("learners");
        List<String> learners = new ArrayList<>(nl);
        for (int i = 0; i < nl; i++) learners.add(in.string("learner"));
        int ng = in.u16("lag entries");
        Map<String, Long> lag = new HashMap<>();
        for (int i = 0; i < ng; i++) lag.put(in.string("lagging peer"), in.i64("lag"));
        long pid = in.i64("pid"), uptime = in.i64("uptime");
        int fault = in.u8("fault injection");
        if (fault > 1) throw new WireFormatException("fault injection flag is " + fault);
        int n = in.u16("members");
        List<NodeStatus.Member> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) members.add(new NodeStatus.Member(in.string("member id"), in.string("peer address"), in.string("client address")));
        long shardView = in.i64("shard map view");
        int ns = in.u16("shards");
        List<List<String>> shards = new ArrayList<>(ns);
        for (int i = 0; i < ns; i++) {
            int nm = in.u16("shard members");
            List<String> shard = new ArrayList<>(nm);
            for (int j = 0; j < nm; j++) shard.add(in.string("shard member"));
            shards.add(shard);
        }
        return new NodeStatus(node, cluster, protocol, role, leader, address, epoch, commit, applied, voters, learners, lag, pid, uptime, fault == 1, members, shardView, shards);
    }

    private static int beginFrame(ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        return start;
    }

    private static void endFrame(ByteBuf out, int start) {
        out.setInt(start, out.writerIndex() - start - 4);
    }

    private static void header(ByteBuf out, int type, long requestId) {
        out.writeByte(VERSION).writeByte(type).writeLong(requestId);
    }

    private static void writeBytes(ByteBuf out, byte[] bytes) {
        out.writeInt(bytes.length).writeBytes(bytes);
    }

    private static void writeString(ByteBuf out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_STRING_BYTES) throw new IllegalArgumentException("string of " + b.length + " bytes does not fit a frame field");
        out.writeShort(b.length).writeBytes(b);
    }

    /** Messages and details are for humans: cut rather than refuse to send them. */
    private static String truncate(String s) {
        return s.length() <= 8_000 ? s : s.substring(0, 8_000) + "...";
    }

    private static int count(int n, String what) {
        if (n > 0xFFFF) throw new IllegalArgumentException("too many " + what + ": " + n);
        return n;
    }

    /** A checked reader of one frame body: the bytes of {@code buf} from its reader index to {@code end}. */
    private static final class In {
        private final ByteBuf buf;
        private final int end;

        In(ByteBuf buf, int end) {
            if (end < buf.readerIndex() || end > buf.writerIndex()) throw new IndexOutOfBoundsException("frame end " + end + " outside " + buf);
            this.buf = buf;
            this.end = end;
        }

        /** Bytes of the frame not read yet. */
        private int remaining() {
            return end - buf.readerIndex();
        }

        int header() {
            if (remaining() < HEADER_BYTES) throw new WireFormatException("frame of " + remaining() + " bytes is shorter than a header");
            int version = buf.readUnsignedByte();
            if (version != VERSION) throw new WireFormatException("unsupported client protocol version " + version + "; this side speaks " + VERSION, true);
            return buf.readUnsignedByte();
        }

        private void need(int n, String field) {
            if (remaining() < n) throw new WireFormatException("truncated at " + field);
        }

        int u8(String field) {
            need(1, field);
            return buf.readUnsignedByte();
        }

        int flags(String field) {
            int f = u8(field);
            if ((f & ~(FIRST_PRESENT | SECOND_PRESENT)) != 0) throw new WireFormatException("unknown bits in " + field + ": " + f);
            return f;
        }

        int u16(String field) {
            need(2, field);
            return buf.readUnsignedShort();
        }

        long i64(String field) {
            need(8, field);
            return buf.readLong();
        }

        double f64(String field) {
            need(8, field);
            return buf.readDouble();
        }

        byte[] bytes(String field) {
            need(4, field);
            int n = buf.readInt();
            if (n < 0 || n > remaining()) throw new WireFormatException(field + " length " + n + " exceeds the " + remaining() + " bytes left");
            byte[] b = new byte[n];
            buf.readBytes(b);
            return b;
        }

        String string(String field) {
            int n = u16(field);
            if (n > remaining()) throw new WireFormatException(field + " length " + n + " exceeds the " + remaining() + " bytes left");
            String s = buf.toString(buf.readerIndex(), n, StandardCharsets.UTF_8);
            buf.skipBytes(n);
            return s;
        }

        NodeId nodeId(String field) {
            String s = string(field);
            try {
                return NodeId.of(s);
            } catch (IllegalArgumentException e) {
                throw new WireFormatException("bad " + field + " '" + s + "': " + e.getMessage());
            }
        }

        void end() {
            if (remaining() != 0) throw new WireFormatException(remaining() + " trailing bytes at the end of the frame");
        }
    }
}
