package com.example.flow;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * The configuration of one processor of a clustered data flow: named properties, some of them
 * sensitive (passwords, tokens), and a fingerprint by which the nodes of a cluster check that they
 * run the same flow before a node may join.
 */
public final class ProcessorConfig {

    private static final Logger LOG = Logger.getLogger(ProcessorConfig.class.getName());
    private static final String MASK = "********";

    private final String processorId;
    private final Set<String> sensitiveProperties;
    private final Map<String, String> properties = new TreeMap<>();

    public ProcessorConfig(String processorId, Set<String> sensitiveProperties) {
        this.processorId = processorId;
        this.sensitiveProperties = Set.copyOf(sensitiveProperties);
    }

    /** Applies property updates and records each change in the log. */
    public void configure(Map<String, String> updates) {
        for (Map.Entry<String, String> update : updates.entrySet()) {
            String name = update.getKey();
            String previous = properties.put(name, update.getValue());
            LOG.info("processor " + processorId + ": property '" + name + "' updated");
            LOG.fine("processor " + processorId + ": '" + name + "' changed from " + previous + " to " + update.getValue());
        }
    }

    public String get(String name) {
        return properties.get(name);
    }

    /** Every property name and value in name order; equal configurations give equal fingerprints. */
    public String fingerprint() {
        StringBuilder fingerprint = new StringBuilder(processorId);
        for (Map.Entry<String, String> property : properties.entrySet()) {
            fingerprint.append('|').append(property.getKey()).append('=').append(property.getValue());
        }
        return fingerprint.toString();
    }

    /**
     * Compares this node's fingerprint with the one the cluster coordinator sent; a node whose
     * flow differs from the cluster's may not join.
     */
    public boolean matchesCluster(String clusterFingerprint) {
        String local = fingerprint();
        if (local.equals(clusterFingerprint)) {
            return true;
        }
        LOG.warning("processor " + processorId + " differs from the cluster flow; the node cannot join");
        LOG.warning("local fingerprint:   " + local);
        LOG.warning("cluster fingerprint: " + clusterFingerprint);
        return false;
    }

    /** A human-readable summary for the user interface, with sensitive values masked. */
    public String describe() {
        StringBuilder text = new StringBuilder("processor ").append(processorId);
        for (Map.Entry<String, String> property : properties.entrySet()) {
            String value = sensitiveProperties.contains(property.getKey()) ? MASK : property.getValue();
            text.append("\n  ").append(property.getKey()).append(" = ").append(value);
        }
        return text.toString();
    }
}
