import handshake from './handshake';
import identities from './identities';
import posts from './posts';
import settings from './settings';
import taxonomy from './taxonomy';
import transactions from './transactions';
import urls from './urls';

export default {
  handshake,
  identities,
  posts,
  settings,
  taxonomy,
  transactions,
  urls,
};
