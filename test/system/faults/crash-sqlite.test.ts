/** kill -9 during an auctions generation and a bazaar snapshot write on sqlite; see crash-suite.ts. */
import { crashSuite } from './crash-suite.ts';

crashSuite('sqlite');
