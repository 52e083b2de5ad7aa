package dev.locksmith.spring;

import java.util.Map;

/**
 * One answer of the application's {@code locksmith} health indicator, read through the Actuator
 * types of the Boot line the tests run on ({@link BootLine#health}).
 *
 * @param status {@code UP}, {@code DOWN}, …
 * @param details the indicator's details
 */
record HealthAnswer(String status, Map<String, Object> details) {}
