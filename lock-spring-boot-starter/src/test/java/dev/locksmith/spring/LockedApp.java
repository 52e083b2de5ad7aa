package dev.locksmith.spring;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** The test application: auto-configuration plus the {@link Work} bean. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(Work.class)
public class LockedApp {}
