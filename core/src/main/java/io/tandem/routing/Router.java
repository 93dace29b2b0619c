package io.tandem.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * One client's routing state under a {@link RoutingPolicy}: which members the next attempt of a
 * request goes to, and what the client learned from answers, redirects and failures. Deterministic
 * and not thread-safe: a client that routes from several threads holds it under its own lock.
 *
 * <p>A client asks {@link #targets()}, sends the attempt to each, and reports back: an answer
 * ({@link #answered}), a redirect naming who can order the request ({@link #redirected}), or a
 * member that did not answer in time or refused the connection ({@link #failed}).
 */
public final class Router<T> {
    private final RoutingPolicy policy;
    private final List<T> members;
    /** Best first: the leader, the pilots, or the next entry of a round-robin. */
    private final List<T> preferred = new ArrayList<>();
    /** {@link RoutingPolicy.AnyMember}: the members requests are spread over (all, until a redirect names those that take them). */
    private final List<T> spread = new ArrayList<>();
    private int cursor;

    Router(RoutingPolicy policy, List<T> members, T first) {
        if (members.isEmpty()) throw new IllegalArgumentException("a router needs at least one member");
        this.policy = policy;
        this.members = new ArrayList<>(members);
        this.cursor = this.members.indexOf(first);
        preferred.add(first);
        spread.addAll(this.members);
    }

    public RoutingPolicy policy() {
        return policy;
    }

    public List<T> members() {
        return List.copyOf(members);
    }

    /** The members to send the next attempt to, at once; never empty. */
    public List<T> targets() {
        return switch (policy) {
            case RoutingPolicy.Leader l -> List.of(preferred.getFirst());
            case RoutingPolicy.FirstReply f -> {
                while (preferred.size() < Math.min(f.width(), members.size())) preferred.add(nextNotPreferred());
                yield List.copyOf(preferred.subList(0, Math.min(f.width(), preferred.size())));
            }
            case RoutingPolicy.AnyMember a -> List.of(spread.get(Math.floorMod(cursor++, spread.size())));
            case RoutingPolicy.Multicast m -> List.copyOf(members);
        };
    }

    /** {@code from} cannot order the request; {@code hints} (best first, maybe empty) can. */
    public void redirected(T from, List<T> hints) {
        // A hint the client was not configured with is learned: membership may have grown.
        for (T h : hints) if (!members.contains(h)) members.add(h);
        List<T> known = List.copyOf(hints);
        switch (policy) {
            case RoutingPolicy.Leader l -> {
                preferred.clear();
                // No hint (an election is under way): try the member after the one that refused.
                preferred.add(known.isEmpty() || known.getFirst().equals(from) ? after(from) : known.getFirst());
            }
            case RoutingPolicy.FirstReply f -> {
                if (known.isEmpty()) {
                    preferred.remove(from);
                } else {
                    preferred.clear();
                    preferred.addAll(known.subList(0, Math.min(f.width(), known.size())));
                }
            }
            case RoutingPolicy.AnyMember a -> {
                // A member that takes no requests names those that do (the frontends or batchers of a
                // deployment): spread over them from now on. Otherwise the next attempt goes to the next one anyway.
                if (!known.isEmpty() && !known.contains(from)) {
                    spread.clear();
                    spread.addAll(known);
                }
            }
            case RoutingPolicy.Multicast m -> { }
        }
    }

    /** {@code node} did not answer in time, or could not be reached: prefer another. */
    public void failed(T node) {
        switch (policy) {
            case RoutingPolicy.Leader l -> {
                if (preferred.getFirst().equals(node)) {
                    preferred.clear();
                    preferred.add(after(node));
                }
            }
            case RoutingPolicy.FirstReply f -> {
                // The next attempt fills the gap with the members after this one, not with it again.
                if (preferred.remove(node) && members.contains(node)) cursor = members.indexOf(node);
            }
            case RoutingPolicy.AnyMember a -> { }
            case RoutingPolicy.Multicast m -> { }
        }
    }

    /** {@code node} answered: it is the one to ask first next time. */
    public void answered(T node) {
        if (!members.contains(node)) return;
        switch (policy) {
            case RoutingPolicy.Leader l -> {
                preferred.clear();
                preferred.add(node);
            }
            case RoutingPolicy.FirstReply f -> {
                preferred.remove(node);
                preferred.addFirst(node);
            }
            case RoutingPolicy.AnyMember a -> { }
            case RoutingPolicy.Multicast m -> { }
        }
    }

    private T after(T node) {
        int i = members.indexOf(node);
        return members.get((i < 0 ? cursor : i + 1) % members.size());
    }

    private T nextNotPreferred() {
        for (int i = 0; i < members.size(); i++) {
            T candidate = members.get(Math.floorMod(++cursor, members.size()));
            if (!preferred.contains(candidate)) return candidate;
        }
        return members.getFirst();
    }

    @Override
    public String toString() {
        return policy.getClass().getSimpleName() + preferred;
    }
}
