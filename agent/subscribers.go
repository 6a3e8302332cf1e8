package agent

// One list of event subscribers, for the loop's and the runtime's events:
// an unsubscribe really removes its entry, so a front end that subscribes
// per prompt does not leave the list growing for the whole session (it
// is walked on every stream delta).

import "sync"

// subscribers is a list of event handlers. Emit walks a snapshot, so a
// handler may subscribe or unsubscribe (itself too) while it runs.
type subscribers[E any] struct {
	mu   sync.Mutex
	next uint64
	list []subscriber[E] // copied on every change, never changed in place
}

type subscriber[E any] struct {
	id uint64
	fn func(E)
}

// add registers fn and returns the function that removes it (calling it
// again does nothing).
func (s *subscribers[E]) add(fn func(E)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	id := s.next
	s.list = append(s.list[:len(s.list):len(s.list)], subscriber[E]{id: id, fn: fn})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, sub := range s.list {
			if sub.id == id {
				list := make([]subscriber[E], 0, len(s.list)-1)
				s.list = append(append(list, s.list[:i]...), s.list[i+1:]...)
				return
			}
		}
	}
}

// emit calls every handler registered now, in order.
func (s *subscribers[E]) emit(ev E) {
	s.mu.Lock()
	list := s.list
	s.mu.Unlock()
	for _, sub := range list {
		sub.fn(ev)
	}
}

// len is how many handlers are registered.
func (s *subscribers[E]) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}
