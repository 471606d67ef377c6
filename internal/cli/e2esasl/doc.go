// Package e2esasl runs the whole kproduce command in-process against an
// in-process cluster (kfake) behind a SASL front, for the mechanisms
// kfake does not serve (OAUTHBEARER, AWS_MSK_IAM, GSSAPI) and for
// re-authentication, and reads the records back with franz-go's kgo.
// It holds tests only.
package e2esasl
