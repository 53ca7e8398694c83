import { takeStackTurns } from './stack-turns';

takeStackTurns();
