package com.example.broker;

import java.io.Serializable;

/** A message as the broker stores it. */
public record ChatMessage(String sender, String recipient, String body, long sentAtMillis) implements Serializable {
}
