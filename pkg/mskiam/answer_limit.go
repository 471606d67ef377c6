package mskiam

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// maxAnswerBytes bounds what is read of one HTTP answer of an AWS
// credential source: the instance metadata service, a container
// endpoint, STS or SSO. Their answers are a few kilobytes; the SDK
// would read one of any size into memory.
const maxAnswerBytes = 1 << 20

// errAnswerTooLarge is the read error of an answer past maxAnswerBytes.
var errAnswerTooLarge = fmt.Errorf("the answer is larger than %d bytes, more than any credential source sends", maxAnswerBytes)

// limitAnswers is an API option of the SDK's clients (given to the whole
// configuration, so that the credential providers' clients take it too):
// the body of every answer they receive ends in an error past
// maxAnswerBytes. It sits last in the deserialize step, next to the
// transport, below the operation's deserializer that reads the body.
func limitAnswers(stack *middleware.Stack) error {
	limit := middleware.DeserializeMiddlewareFunc("kproduceLimitAnswer",
		func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
			middleware.DeserializeOutput, middleware.Metadata, error,
		) {
			out, md, err := next.HandleDeserialize(ctx, in)
			if resp, ok := out.RawResponse.(*smithyhttp.Response); ok && resp.Body != nil {
				resp.Body = &limitedBody{body: resp.Body, left: maxAnswerBytes}
			}
			return out, md, err
		})
	return stack.Deserialize.Add(limit, middleware.After)
}

// limitedBody reads an answer's body up to left more bytes, then fails
// with errAnswerTooLarge unless the body ends there.
type limitedBody struct {
	body io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.body.Read(one[:])
		if n > 0 {
			return 0, errAnswerTooLarge
		}
		return 0, err // io.EOF: the answer ended at the bound
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }
