package dev.locksmith.etcd.internal;

import dev.locksmith.LockStoreException;

/**
 * An error answer from etcd: its HTTP status, its gRPC status code and its own message (such as
 * {@code etcdserver: requested lease not found}), so callers can tell the harmless ones apart.
 */
public final class EtcdException extends LockStoreException {
  private static final long serialVersionUID = 1L;

  /** gRPC {@code NOT_FOUND}: a lease that expired or was revoked. */
  public static final int NOT_FOUND = 5;

  private final int httpStatus;
  private final int grpcCode;
  private final String etcdMessage;

  EtcdException(String message, int httpStatus, int grpcCode, String etcdMessage) {
    super(message);
    this.httpStatus = httpStatus;
    this.grpcCode = grpcCode;
    this.etcdMessage = etcdMessage;
  }

  /** The HTTP status of the answer. */
  public int httpStatus() {
    return httpStatus;
  }

  /** The gRPC status code etcd gave, or -1. */
  public int grpcCode() {
    return grpcCode;
  }

  /** etcd's message, such as {@code etcdserver: requested lease not found}. */
  public String etcdMessage() {
    return etcdMessage;
  }
}
