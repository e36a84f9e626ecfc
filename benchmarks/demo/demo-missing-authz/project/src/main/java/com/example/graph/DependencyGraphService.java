package com.example.graph;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Holds which jobs of a build server trigger which other jobs, and answers the web endpoints of
 * the dependency graph view. Reading the graph takes the READ permission; changing it takes
 * CONFIGURE.
 */
public final class DependencyGraphService {

    public enum Permission { READ, CONFIGURE }

    /** The user on whose behalf a request runs. */
    public record User(String name, Set<Permission> permissions) {
    }

    /** Thrown when a user lacks the permission that an operation requires. */
    public static final class AccessDeniedException extends RuntimeException {
        public AccessDeniedException(String message) {
            super(message);
        }
    }

    private final Map<String, Set<String>> downstream = new TreeMap<>();

    /** The jobs that a job triggers, in name order. */
    public Set<String> downstreamOf(User user, String job) {
        requirePermission(user, Permission.READ);
        return Set.copyOf(downstream.getOrDefault(job, Set.of()));
    }

    public void addDependency(User user, String upstream, String job) {
        requirePermission(user, Permission.CONFIGURE);
        checkNotSelf(upstream, job);
        downstream.computeIfAbsent(upstream, key -> new TreeSet<>()).add(job);
    }

    public void removeDependency(User user, String upstream, String job) {
        requirePermission(user, Permission.CONFIGURE);
        Set<String> jobs = downstream.get(upstream);
        if (jobs != null) {
            jobs.remove(job);
        }
    }

    /** Replaces every downstream job of a job at once; the graph editor posts here. */
    public void replaceDownstream(User user, String upstream, Collection<String> jobs) {
        Set<String> replacement = new TreeSet<>();
        for (String job : jobs) {
            checkNotSelf(upstream, job);
            replacement.add(job);
        }
        downstream.put(upstream, replacement);
    }

    private static void checkNotSelf(String upstream, String job) {
        if (upstream.equals(job)) {
            throw new IllegalArgumentException("a job cannot trigger itself: " + job);
        }
    }

    private static void requirePermission(User user, Permission permission) {
        if (!user.permissions().contains(permission)) {
            throw new AccessDeniedException(user.name() + " lacks the " + permission + " permission");
        }
    }
}
