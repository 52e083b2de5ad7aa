package dev.locksmith.spring;

import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;

/**
 * {@link LockedContract} on an H2 database shared by both instances, reached through each
 * application's own {@code DataSource} (no {@code locksmith.uri}).
 */
@SpringBootTest(
    classes = LockedApp.class,
    properties = {
      LockedOnH2Test.DATABASE,
      "locksmith.on-lost=INTERRUPT",
      "locksmith.lease-time=3s"
    })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class LockedOnH2Test extends LockedContract {

  static final String DATABASE =
      "spring.datasource.url=jdbc:h2:mem:locked-contract;DB_CLOSE_DELAY=-1";

  @Autowired DataSource dataSource;

  @Override
  Map<String, Object> secondInstance() {
    return Map.of(
        "spring.datasource.url",
        "jdbc:h2:mem:locked-contract;DB_CLOSE_DELAY=-1",
        "locksmith.lease-time",
        "3s");
  }

  @Override
  void dropAllLocks() {
    new JdbcTemplate(dataSource).update("DELETE FROM locksmith_locks");
  }

  @Override
  String storeTag() {
    return "jdbc/h2";
  }
}
