package com.example.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.graph.DependencyGraphService.AccessDeniedException;
import com.example.graph.DependencyGraphService.Permission;
import com.example.graph.DependencyGraphService.User;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DependencyGraphServiceTest {

    private static final User ADMIN = new User("admin", Set.of(Permission.READ, Permission.CONFIGURE));
    private static final User VIEWER = new User("viewer", Set.of(Permission.READ));

    private DependencyGraphService graph;

    @BeforeEach
    void createGraph() {
        graph = new DependencyGraphService();
        graph.addDependency(ADMIN, "build", "test");
        graph.addDependency(ADMIN, "build", "package");
    }

    @Test
    void viewerCannotReplaceDownstreamJobs() {
        try {
            graph.replaceDownstream(VIEWER, "build", List.of("deploy-production"));
        } catch (AccessDeniedException denied) {
            // expected
        }
        assertEquals(Set.of("test", "package"), graph.downstreamOf(ADMIN, "build"),
                "a user with only READ changed the dependency graph");
    }

    @Test
    void viewerCanReadTheGraph() {
        assertEquals(Set.of("test", "package"), graph.downstreamOf(VIEWER, "build"));
        assertEquals(Set.of(), graph.downstreamOf(VIEWER, "unknown"));
    }

    @Test
    void adminCanReplaceDownstreamJobs() {
        graph.replaceDownstream(ADMIN, "build", List.of("lint", "test"));
        assertEquals(Set.of("lint", "test"), graph.downstreamOf(VIEWER, "build"));
    }

    @Test
    void viewerCannotAddOrRemoveDependencies() {
        assertThrows(AccessDeniedException.class, () -> graph.addDependency(VIEWER, "build", "deploy"));
        assertThrows(AccessDeniedException.class, () -> graph.removeDependency(VIEWER, "build", "test"));
        assertEquals(Set.of("test", "package"), graph.downstreamOf(VIEWER, "build"));
    }

    @Test
    void adminCanRemoveDependency() {
        graph.removeDependency(ADMIN, "build", "test");
        assertEquals(Set.of("package"), graph.downstreamOf(VIEWER, "build"));
    }

    @Test
    void jobCannotTriggerItself() {
        assertThrows(IllegalArgumentException.class, () -> graph.addDependency(ADMIN, "build", "build"));
        assertThrows(IllegalArgumentException.class, () -> graph.replaceDownstream(ADMIN, "build", List.of("build")));
    }

    @Test
    void anonymousCannotRead() {
        User anonymous = new User("anonymous", Set.of());
        assertThrows(AccessDeniedException.class, () -> graph.downstreamOf(anonymous, "build"));
    }
}
