import { linkSuite } from './link-suite.js';

linkSuite('serial').run();
