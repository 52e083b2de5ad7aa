package dev.locksmith.examples.scheduler;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A service that runs scheduled jobs and ships orders, meant to run as several instances: each job
 * runs on one instance per period, and an order is shipped by one instance at a time. Locks live in
 * the store named by {@code locksmith.uri}.
 */
@SpringBootApplication
@EnableScheduling
public class SchedulerApplication {

  public static void main(String[] args) {
    SpringApplication.run(SchedulerApplication.class, args);
  }
}
