package io.tandem.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouterTest {
    private static final List<String> MEMBERS = List.of("a", "b", "c", "d", "e");

    @Test
    void leaderPolicyFollowsRedirectsAndMovesOnAfterAFailure() {
        Router<String> r = RoutingPolicy.leader().newRouter(MEMBERS, "b");
        assertThat(r.targets()).containsExactly("b");
        r.redirected("b", List.of("d"));
        assertThat(r.targets()).containsExactly("d");
        r.failed("d");
        assertThat(r.targets()).containsExactly("e");
        r.redirected("e", List.of()); // an election: no hint, try the next member
        assertThat(r.targets()).containsExactly("a");
        r.answered("c");
        assertThat(r.targets()).containsExactly("c");
        r.failed("a"); // not the one it prefers: nothing changes
        assertThat(r.targets()).containsExactly("c");
    }

    @Test
    void aRedirectToAMemberTheClientDidNotKnowIsLearned() {
        Router<String> r = RoutingPolicy.leader().newRouter(List.of("a", "b"), "a");
        r.redirected("a", List.of("z"));
        assertThat(r.targets()).containsExactly("z");
        assertThat(r.members()).containsExactly("a", "b", "z");
    }

    @Test
    void firstReplySendsToSeveralAndKeepsTheNamedOnes() {
        Router<String> r = RoutingPolicy.firstReply(2).newRouter(MEMBERS, "a");
        assertThat(r.targets()).hasSize(2).contains("a").doesNotHaveDuplicates();
        r.redirected("a", List.of("c", "e", "b"));
        assertThat(r.targets()).containsExactly("c", "e");
        r.failed("c");
        assertThat(r.targets()).hasSize(2).contains("e").doesNotContain("c");
        r.answered("b");
        assertThat(r.targets().getFirst()).isEqualTo("b");
    }

    @Test
    void anyMemberSpreadsRoundRobinAndMulticastGoesToAll() {
        Router<String> any = RoutingPolicy.anyMember().newRouter(MEMBERS, "c");
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 5; i++) seen.addAll(any.targets());
        assertThat(seen).containsExactly("c", "d", "e", "a", "b");
        assertThat(RoutingPolicy.multicast().newRouter(MEMBERS, "a").targets()).containsExactlyElementsOf(MEMBERS);
    }

    @Test
    void anyMemberSpreadsOverTheMembersARedirectNamesAsTakingRequests() {
        Router<String> any = RoutingPolicy.anyMember().newRouter(MEMBERS, "a");
        assertThat(any.targets()).containsExactly("a");
        any.redirected("a", List.of("c", "e")); // a takes no requests; c and e do
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 4; i++) seen.addAll(any.targets());
        assertThat(seen).containsOnly("c", "e").contains("c", "e");
        any.redirected("c", List.of("c")); // a member naming itself does not narrow the spread
        seen.clear();
        for (int i = 0; i < 4; i++) seen.addAll(any.targets());
        assertThat(seen).containsOnly("c", "e").contains("c", "e");
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> RoutingPolicy.leader().newRouter(MEMBERS, "x")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not one of the members");
        assertThatThrownBy(() -> RoutingPolicy.firstReply(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
