package dev.locksmith.spring;

import java.util.Map;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link LockedContract} on a real redis-server, named by {@code locksmith.uri}. */
@SpringBootTest(
    classes = LockedApp.class,
    properties = {"locksmith.on-lost=INTERRUPT", "locksmith.lease-time=3s"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class LockedOnRedisTest extends LockedContract {

  @DynamicPropertySource
  static void store(DynamicPropertyRegistry registry) {
    registry.add("locksmith.uri", SharedRedis::uri);
  }

  @Override
  Map<String, Object> secondInstance() {
    return Map.of("locksmith.uri", SharedRedis.uri(), "locksmith.lease-time", "3s");
  }

  @Override
  void dropAllLocks() {
    SharedRedis.dropEverything();
  }

  @Override
  String storeTag() {
    return "redis";
  }
}
