package com.example.config;

/** A settings document that cannot be read or does not have the expected shape. */
public class ConfigException extends Exception {

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
