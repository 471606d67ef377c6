// Package tlsconf builds a client TLS configuration from PEM files: CA
// certificates, a client certificate and its private key (PKCS #1, SEC 1
// or PKCS #8, encrypted with PBES2 or OpenSSL's legacy scheme). A Java
// keystore, PKCS #12 or DER file is recognised and refused with the
// commands that convert it. Passwords never appear in an error.
package tlsconf
