import { setGlobalDispatcher } from 'undici';
import { testConnections } from './http';
import { takeStackTurns } from './stack-turns';

// Every file takes its turn on the shared stack (./stack-turns.ts).
takeStackTurns();
// A suite's own fetch calls (and the typed client's) keep idle connections as briefly as http() does (./http.ts).
setGlobalDispatcher(testConnections);
