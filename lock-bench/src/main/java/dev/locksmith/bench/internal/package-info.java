/** The benchmark targets and harness internals; not an API. */
package dev.locksmith.bench.internal;
