package retry

import (
	"errors"
	"time"
)

var ErrGaveUp = errors.New("gave up")

// Do calls f up to attempts times, sleeping backoff*2^i between calls.
func Do(attempts int, backoff time.Duration, f func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil {
			return nil
		}
		time.Sleep(backoff << i)
	}
	return ErrGaveUp
}
