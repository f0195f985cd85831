package queue

import "sync"

type Queue struct {
	mu    sync.Mutex
	items []string
	cond  *sync.Cond
}

func New() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *Queue) Push(s string) {
	q.mu.Lock()
	q.items = append(q.items, s)
	q.mu.Unlock()
}

// Pop waits for an item. Bug: Push never signals, so Pop on an empty queue waits forever.
func (q *Queue) Pop() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		q.cond.Wait()
	}
	s := q.items[0]
	q.items = q.items[1:]
	return s
}

func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

func (q *Queue) Drain() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.items
	q.items = nil
	return out[:len(out)-1]
}
