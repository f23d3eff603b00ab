import handshake from './handshake';
import posts from './posts';

export default {
  handshake,
  posts,
};
