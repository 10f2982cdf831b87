/**
 * The cni-chain adapter SPI: the interface {@link io.cnichain.spi.CniPlatformAdapter} that platform
 * adapters implement, the read-only {@link io.cnichain.spi.NodeView} they decide from, and the value types
 * they return. This package depends on nothing but the JDK.
 */
package io.cnichain.spi;
