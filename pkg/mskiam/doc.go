// Package mskiam is SASL AWS_MSK_IAM, the mechanism of Amazon MSK's IAM
// access control, as aws-msk-iam-auth speaks it: one client message, the
// JSON of a kafka-cluster:Connect request presigned with AWS Signature
// Version 4 (payload version 2020_10_22) for the broker's host, answered
// with the broker's JSON on success.
//
// Credentials come from aws-sdk-go-v2's default chain (environment,
// shared config and credentials files with a profile, web identity,
// container and instance metadata), optionally exchanged for a role's
// (STS AssumeRole), and are resolved in the background: the first time a
// Client prepares the mechanism, then again at 80% of their life when they
// expire. Each authentication, re-authentications included, signs anew.
//
// Invariants: NewSession never blocks and never signs with expired
// credentials; secret keys and session tokens never appear in an error.
package mskiam
