// Package tlsconf builds a client TLS configuration from the files a user
// holds: PEM CA certificates, a client certificate and its private key
// (PKCS #1, SEC 1 or PKCS #8, encrypted with PBES2 or OpenSSL's legacy
// scheme), or Java's key stores and trust stores (JKS, PKCS #12, PEM),
// whose content decides their format whatever their name or declared
// type. A key store's key is chosen by alias, else the only or first one.
// A binary store given where PEM is expected is refused with the option
// that reads it and the commands that convert it. Passwords never appear
// in an error; a wrong store password wraps ErrStorePassword.
package tlsconf
