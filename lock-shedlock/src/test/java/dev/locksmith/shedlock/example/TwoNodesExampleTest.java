package dev.locksmith.shedlock.example;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TwoNodesExampleTest {

  @Test
  @DisplayName("the example's job runs on one node of two")
  void runsOnce() throws InterruptedException {
    assertThat(TwoNodesExample.run("mem:two-nodes-example"))
        .singleElement()
        .asString()
        .matches("node[12] ran the report with fencing token \\d+");
  }
}
