// A parse worker for tests that dies at start, before answering anything.
throw new Error('this worker fails at start on purpose');
